from medlit.core.cli import main

raise SystemExit(main())
