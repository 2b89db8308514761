"""The streamed answer: one sequence of events (``sources``, ``delta``..., ``answer``, ``end``, or ``error``),
encoded as server-sent events, and the doors that serve it: ``sabio serve`` (chalice local, flushed event by
event), the API's own route (the whole stream in one response, where the gateway buffers), and the stream
function on AWS (a Function URL through the Lambda Web Adapter: ``server.py`` and ``run.sh``)."""
