"""The bundled reference library: crops, their aliases and typical values, each with its source."""
