#!/bin/sh
# Runs a test ("$@") in a D-Bus session of its own with a GNOME keyring daemon (the Secret
# Service QtKeychain talks to), in a scratch HOME so that no real keyring is read or written.
# Exit 77 (skipped) when dbus-run-session or gnome-keyring-daemon is missing or does not start.
command -v dbus-run-session >/dev/null 2>&1 || { echo "skipped: no dbus-run-session (Debian: dbus-daemon)"; exit 77; }
command -v gnome-keyring-daemon >/dev/null 2>&1 || { echo "skipped: no gnome-keyring-daemon (Debian: gnome-keyring)"; exit 77; }
exec dbus-run-session -- sh -c '
  HOME=$(mktemp -d) || exit 77
  export HOME
  unset XDG_DATA_HOME XDG_CONFIG_HOME
  trap "rm -rf \"$HOME\"" EXIT
  # The password unlocks (or creates) the "login" keyring; it only has to be the same each time.
  printf "hearth-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || {
    echo "skipped: gnome-keyring-daemon did not start"; exit 77; }
  HEARTH_TEST_KEYRING=1 "$@"
' with_keyring "$@"
