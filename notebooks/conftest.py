"""nbval runs the lessons' solution cells: their run_solution(...) runs the solution only when this is set."""

import os

from lesson_tools.checking import RUN_SOLUTIONS

os.environ[RUN_SOLUTIONS] = "1"  # the kernels nbval starts inherit it
