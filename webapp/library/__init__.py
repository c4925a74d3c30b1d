"""The document library: uploaded documents and the reference library, searchable as passages."""
