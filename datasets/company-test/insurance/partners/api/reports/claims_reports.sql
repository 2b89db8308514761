-- =====================================================================
-- claims_reports.sql
-- Partner reporting queries on the claims data mart (PostgreSQL 15)
-- Schema: partner_dm   Owner: Partner Integrations / BI
-- Run nightly by run_nightly_reports.sh; results are published in the
-- partner portal under Reports. Amounts are in the policy currency.
-- Last change: 2025-05-12 (report R4 now excludes claims UNDER_REVIEW)
-- =====================================================================

-- R1. Monthly claims opened per partner and line of business
--     Used for the "Claims volume" chart in the portal.
SELECT
    p.partner_code,
    date_trunc('month', c.opened_at)::date AS month,
    c.line_of_business,                      -- HG, SL or VJ
    count(*)                                 AS claims_opened,
    sum(c.estimated_amount)                  AS estimated_total
FROM partner_dm.claims c
JOIN partner_dm.policies pol ON pol.policy_number = c.policy_number
JOIN partner_dm.partners p   ON p.partner_id = pol.partner_id
WHERE c.opened_at >= date_trunc('month', now()) - interval '12 months'
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

-- R2. Average settlement time (days from opening to payment), last 90 days
--     Target agreed with partners: 21 days for home, 12 days for health.
SELECT
    c.line_of_business,
    round(avg(extract(epoch FROM (c.paid_at - c.opened_at)) / 86400)::numeric, 1) AS avg_days_to_pay,
    percentile_cont(0.9) WITHIN GROUP (ORDER BY c.paid_at - c.opened_at)          AS p90_time_to_pay
FROM partner_dm.claims c
WHERE c.status IN ('PAID', 'CLOSED')
  AND c.paid_at >= now() - interval '90 days'
GROUP BY c.line_of_business;

-- R3. Open claims older than 45 days (ageing report)
--     Sent to the partner's account manager every Monday.
SELECT
    p.partner_code,
    c.claim_id,
    c.claim_type,
    c.status,
    (now()::date - c.opened_at::date) AS age_days
FROM partner_dm.claims c
JOIN partner_dm.policies pol ON pol.policy_number = c.policy_number
JOIN partner_dm.partners p   ON p.partner_id = pol.partner_id
WHERE c.status IN ('OPEN', 'UNDER_ASSESSMENT', 'ASSESSED')
  AND c.opened_at < now() - interval '45 days'
ORDER BY age_days DESC;

-- R4. Loss ratio per partner, rolling 12 months
--     paid claims / earned premium. Claims UNDER_REVIEW are excluded so that
--     partners cannot infer fraud investigations from the report.
WITH paid AS (
    SELECT pol.partner_id, sum(c.paid_amount) AS paid_total
    FROM partner_dm.claims c
    JOIN partner_dm.policies pol ON pol.policy_number = c.policy_number
    WHERE c.paid_at >= now() - interval '12 months'
      AND c.status <> 'UNDER_REVIEW'
    GROUP BY pol.partner_id
),
earned AS (
    SELECT partner_id, sum(earned_premium) AS earned_total
    FROM partner_dm.premium_earned
    WHERE period_month >= date_trunc('month', now()) - interval '12 months'
    GROUP BY partner_id
)
SELECT
    p.partner_code,
    e.earned_total,
    coalesce(pd.paid_total, 0)                                   AS paid_total,
    round(coalesce(pd.paid_total, 0) / nullif(e.earned_total, 0) * 100, 2) AS loss_ratio_pct
FROM earned e
JOIN partner_dm.partners p ON p.partner_id = e.partner_id
LEFT JOIN paid pd          ON pd.partner_id = e.partner_id
ORDER BY loss_ratio_pct DESC NULLS LAST;

-- R5. API errors per partner and code, last 7 days (from the gateway log table)
--     Helps account managers spot integrations that keep hitting PAPI-3007 or PAPI-1009.
SELECT
    partner_code,
    error_code,
    count(*) AS occurrences
FROM partner_dm.api_gateway_errors
WHERE logged_at >= now() - interval '7 days'
GROUP BY partner_code, error_code
HAVING count(*) >= 10
ORDER BY occurrences DESC;
