"""Background runs: the Run model, the queue, the worker's runner, the sweeper and their pages."""
