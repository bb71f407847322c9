"""What people and judges say: labels against verdicts, agreement, win rates, the judge corrected by people."""
