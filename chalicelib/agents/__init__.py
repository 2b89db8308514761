"""Sabio for agents: its use cases as tools (tools.py) served over MCP (mcp_server.py)."""
