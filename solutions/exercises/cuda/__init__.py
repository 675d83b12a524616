"""CUDA kernel exercises in numba, one module per subject, checked in numba's CUDA simulator.

These modules never import numba: the quizzer process uses only the numpy references and the
inputs; the user's file (and the model solution) import numba in the child process, which turns
the simulator on first. The simulator runs every CUDA thread as a Python thread, so shapes stay
tiny (matrices up to about 20 x 20, rows up to 40), and sizes are odd or rarely a multiple of
the tile or block. Where an output element belongs to one thread, a mismatch names the block and
thread that wrote the first wrong value.
"""
