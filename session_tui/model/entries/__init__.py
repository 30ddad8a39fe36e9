"""What an entry is and how entries link: the view of one record, the tree of
them in compact arrays, tool calls paired with their results, the tokens an
entry records. Below the formats (each reads its records into these)."""
