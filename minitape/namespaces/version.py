"""`mt.version`, as `tf.version`: tutorials start with `print(tf.version.VERSION)`."""

import minitape

VERSION = minitape.__version__  # minitape's own version; TensorFlow would print its own here
GIT_VERSION = "v" + VERSION
