"""TensorFlow's training checkpoints (`tf.train.Checkpoint`, `CheckpointManager` and the readers), for `mt.train`.

tracking.py says what a checkpoint sees of objects (the named graph, deferred restoration), storage.py what the
files hold, checkpoint.py how a Checkpoint saves and restores, manager.py how a CheckpointManager numbers and keeps.
"""
