"""The answer confidence, measured and fitted: labelled answers (data), the logistic model chosen by
leave-one-folder-out validation (fit), and how a confidence is read in aggregate (calibration)."""
