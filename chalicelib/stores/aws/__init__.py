"""The AWS backends: DynamoDB for chunks, manifest, enrichment cache and query log; OpenSearch (managed or
Serverless) for the vector and keyword index."""
