"""evalcore: which model, prompt and settings should we ship?

Suites of cases on disk, lineups of models, concurrent runs, a SQLite history, run files, and
leaderboards with weighted scores and confidence intervals.
"""

__version__ = "0.1.0"
