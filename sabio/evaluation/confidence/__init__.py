"""The answer confidence, fitted: labelled answers (data) and the logistic model chosen by leave-one-folder-out
validation (fit). How a confidence is read in aggregate is sabio.evaluation.calibration."""
