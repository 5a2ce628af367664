//! Reusable byte buffers in power-of-two size classes, bounded and model-checked: not implemented yet (issue 3).
