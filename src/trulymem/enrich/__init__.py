"""Write-time enrichment of ingested conversations, by rules (no model): per-speaker
profiles (``profiles``) and session summaries (``sessions``)."""
