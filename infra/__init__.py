"""AWS CDK app for Sabio."""
