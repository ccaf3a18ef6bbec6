"""``python -m ralph_verify``."""

from ralph_verify.cli import console_main

if __name__ == "__main__":
    console_main()
