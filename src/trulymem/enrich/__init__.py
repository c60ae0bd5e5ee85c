"""Write-time enrichment of ingested conversations: per-speaker profiles by rules
(``profiles``), and their topics read by a chat model when one is configured
(``model_profiles``)."""
