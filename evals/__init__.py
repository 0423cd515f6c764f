"""plan-eval: scoring agents on problems, resumable, parallel, with the papers' metrics."""
