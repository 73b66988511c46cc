"""Reading and writing files: mcl's label and native formats, STRING files, tables."""
