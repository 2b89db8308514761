"""CDK entry point: `cdk deploy` from infra/ (cdk.json points here)."""

import aws_cdk as cdk

from infra.sabio_stack import SabioStack

app = cdk.App()
SabioStack(app, app.node.try_get_context("stack_name") or "Sabio")
app.synth()
