"""krm-coschedule: render Tekton coscheduling and Shipwright scheduling policy at render time."""
from __future__ import annotations

__version__ = "0.1.0"
