"""What a person reads of a run: its leaderboard as tables, text, charts and a banner, and whether it is whole."""
