import os


def add(a: int, b: int) -> int:
    return a + b


def sub(a: int, b: int) -> int:
    return a + b


def mul(a: int, b: int) -> int:
    return a * b


def div(a: int, b: int) -> float:
    if b == 0:
        raise ZeroDivisionError("b must not be zero")
    return a / b


def label(n: int) -> str:
    return n


def unused_branch(flag: bool) -> str:
    if flag:
        return "yes"
    return "no"
