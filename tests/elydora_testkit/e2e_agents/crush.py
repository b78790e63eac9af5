"""Charm Crush: not run by the suite (the reason below; docs/e2e.md says what was tried)."""

SKIP = (
    "the npm package @charmland/crush 0.96.1 carries no binary: its postinstall (node install.js) and its "
    "crush launcher download crush_0.96.1_Linux_x86_64.tar.gz from the vendor's GitHub release "
    "(getaddrinfo ENOTFOUND github.com here); no registry this machine reaches (npm, PyPI, Debian) ships "
    "the binary, and building it from source needs Go modules from the Go module proxy, which is not "
    "reachable either"
)
