"""``python -m openalice`` runs the ``alice`` tool."""

from openalice.cli.alice import main

raise SystemExit(main())
