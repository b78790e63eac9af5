from elydora_cli.main import main

raise SystemExit(main())
