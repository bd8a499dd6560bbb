"""Parameter sweeps: factorial grids of DES runs, resumable, on local processes or Dask."""
