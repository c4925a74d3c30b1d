"""The four roles, ordered: each one may do everything the ones before it may."""

from enum import IntEnum


class Role(IntEnum):
    viewer = 1
    editor = 2
    reviewer = 3
    admin = 4

    @classmethod
    def parse(cls, name: str) -> "Role":
        try:
            return cls[name.strip().lower()]
        except KeyError:
            raise ValueError(
                f"unknown role {name!r}; choose one of {', '.join(ROLE_NAMES)}"
            ) from None


ROLE_NAMES = tuple(role.name for role in Role)
