"""How sure we are: intervals, the bootstrap, paired differences and their tests, racing adaptive runs, and
how many cases a difference needs."""
