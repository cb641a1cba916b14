"""What a run gives back: the run summary, the terminal, HTML and JUnit reports, live
progress, and the run directory they are published to."""
