"""Who ranks where in one run: aggregates weighted and ranked, their stability, the Pareto front, pass rates."""
