from sscbench.cli import main

main()
