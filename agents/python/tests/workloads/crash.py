"""Dies with an uncaught exception (exit code 1) after some calls."""


def explode():
    raise RuntimeError("boom")


def main():
    explode()


main()
