#!/bin/sh
# The stream function's start-up script: the Lambda Web Adapter (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap) runs
# the function's handler, this file, and proxies each invocation to the server it starts (server.py).
cd "$(dirname "$0")/../.." || exit 1
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" exec "${SABIO_PYTHON:-python3}" -m chalicelib.streaming.server
