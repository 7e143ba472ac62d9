"""SRT platforms: the platform base types and the ``current_platform`` singleton."""
