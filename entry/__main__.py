import gc

gc.disable()  # start-up runs without the cyclic collector (medlit.core.cli.pause_collector)

from medlit.core.cli import main  # noqa: E402

raise SystemExit(main())
