"""What a result counts for: which results count, how a number reads, the weighted score and its rules."""
