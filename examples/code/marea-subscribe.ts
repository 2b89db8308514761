// Marea signup widget: adds a contact to a list and starts the welcome journey.

const MAREA_API = "https://api.marea.example/v1";

export interface Contact {
  email: string;
  firstName?: string;
  consent: boolean;
}

export async function subscribe(listId: string, contact: Contact, apiKey: string): Promise<string> {
  // Marea rejects contacts without explicit consent (GDPR): check before calling the API.
  if (!contact.consent) {
    throw new Error("consent is required to subscribe a contact");
  }
  const response = await fetch(`${MAREA_API}/lists/${listId}/contacts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(contact),
  });
  if (!response.ok) {
    throw new Error(`Marea answered ${response.status}`);
  }
  const created = await response.json();
  return created.id;
}

export class JourneyTrigger {
  constructor(private readonly apiKey: string) {}

  async start(journeyId: string, contactId: string): Promise<void> {
    await fetch(`${MAREA_API}/journeys/${journeyId}/start`, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify({ contact_id: contactId }),
    });
  }
}
