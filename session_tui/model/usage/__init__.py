"""What a session spent and kept: its responses' tokens priced from a
maintained table, the context over time, what each compaction dropped."""
