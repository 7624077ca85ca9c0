"""How a run is shown: its tables, its plots, and the published figures it is set beside."""
