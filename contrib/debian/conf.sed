# SPDX-License-Identifier: BSD-2-Clause
# conf.sed - what the Debian package changes in conf/patchattest.conf (the
# file made from the key table, every key at its default) to make the
# installed /etc/patchattest/patchattest.conf.  debian/rules applies it
# and checks that each change took; tests/t-postfix.sh runs the milter
# with the result behind a chrooted Postfix.
#
# The milter runs as the system user the postinst makes.
s/^#UserID TEXT$/UserID patchattest/
# It listens on TCP on the loopback interface, where the Postfix lines of
# the README and contrib/postfix/main.cf (smtpd_milters =
# inet:127.0.0.1:8891) find it, chrooted or not.  That is the built-in
# default too; the installed file says it, and why a unix socket would
# have to be inside Postfix's chroot, /var/spool/postfix.
/^# Socket /c\
# The package's setting: Postfix reaches it from its chroot with\
# "smtpd_milters = inet:127.0.0.1:8891".  A unix socket must be inside\
# /var/spool/postfix: see patchattest-milter(8), POSTFIX.\
Socket inet:8891@127.0.0.1
