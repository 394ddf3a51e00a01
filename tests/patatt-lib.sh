# SPDX-License-Identifier: BSD-2-Clause
# patatt-lib.sh - patch mail signed by the real patatt tool, for the milter
# and Postfix tests; sourced.
#
# patatt_setup DIR: in DIR, a private home and git repository where
#   Debian's patatt makes an ed25519 key for dev@example.org, and DIR/keyring,
#   a patatt keyring folder with that key (ed25519/example.org/dev/t1).
#   Status 0, or 1 when patatt or git is missing or patatt fails.
# patatt_sign IN OUT: IN signed by that key (X-Developer-Signature).
# patatt_sign_at WHEN IN OUT: the same, signed at WHEN (patatt's clock set).
# patatt_sign_pgp: the same with an OpenPGP key of a GnuPG home (below).
#
# patatt runs in a subshell with HOME and the XDG folders inside DIR, so
# the user's own patatt and git settings play no part.

patatt_setup() {
	PATATT_DIR=$1
	command -v patatt >/dev/null 2>&1 && command -v git >/dev/null 2>&1 ||
	    return 1
	mkdir -p "$PATATT_DIR/home" "$PATATT_DIR/keyring/ed25519/example.org/dev"
	patatt_env git init -q "$PATATT_DIR/repo" &&
	    patatt_in_repo git config user.email dev@example.org &&
	    patatt_in_repo git config user.name 'Dev Eloper' &&
	    patatt_in_repo patatt genkey -n t1 >"$PATATT_DIR/genkey.log" 2>&1 &&
	    patatt_in_repo git config patatt.signingkey ed25519:t1 &&
	    patatt_in_repo git config patatt.selector t1 &&
	    cp "$PATATT_DIR/home/.local/share/patatt/public/t1.pub" \
	    "$PATATT_DIR/keyring/ed25519/example.org/dev/t1"
}

patatt_sign() {
	patatt_in_repo patatt sign <"$1" >"$2" 2>"$PATATT_DIR/sign.log" &&
	    grep -q '^X-Developer-Signature:' "$2"
}

# patatt_sign_at WHEN IN OUT: IN signed as by patatt_sign, by patatt with
# its clock set to WHEN (Unix seconds), so that its t= is WHEN
patatt_sign_at() {
	# the Python that runs patatt, which has its module
	set -- "$1" "$2" "$3" "$(sed -n '1s/^#! *//p' "$(command -v patatt)")"
	patatt_in_repo $4 -c 'import sys, time
when = float(sys.argv[1])
time.time = lambda: when
import patatt
sys.argv = ["patatt", "sign"]
sys.exit(patatt.command())' "$1" <"$2" >"$3" 2>"$PATATT_DIR/sign.log" &&
	    grep -q "^X-Developer-Signature:.* t=$1;" "$3"
}

# patatt_in_repo CMD...: CMD in the repository, with the private home
patatt_in_repo() {
	(cd "$PATATT_DIR/repo" && patatt_env "$@")
}

patatt_env() {
	HOME=$PATATT_DIR/home XDG_CONFIG_HOME=$PATATT_DIR/home/.config \
	    XDG_DATA_HOME=$PATATT_DIR/home/.local/share \
	    XDG_CACHE_HOME=$PATATT_DIR/home/.cache GIT_CONFIG_NOSYSTEM=1 \
	    "$@"
}

# patatt_sign_pgp IN OUT HOME FPR ADDR: IN signed by patatt with the
# OpenPGP key FPR of the GnuPG home HOME, for the identity ADDR
patatt_sign_pgp() {
	patatt_in_repo git config patatt.pgp.signingkey "openpgp:$4" &&
	    patatt_in_repo git config patatt.pgp.identity "$5" &&
	    (GNUPGHOME=$3 && export GNUPGHOME &&
	    patatt_in_repo patatt -s pgp sign) <"$1" >"$2" \
	    2>"$PATATT_DIR/sign.log" &&
	    grep -q '^X-Developer-Signature:' "$2"
}
