"""The NCBI tools, one module per family. Tool modules never import each other: what two of them
share lives a floor down (``client``, ``parse``, ``inputs``, ``render``, ``citation_styles``)."""
