"""Whether a candidate run is worse than its base, and whether it ships: the comparison and the gate."""
