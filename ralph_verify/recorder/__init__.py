"""What runs inside the project's pytest (:mod:`.plugin`, :mod:`.affected_plugin`: they
import nothing of ralph-verify beyond this folder), and its readers, side by side."""
