# SPDX-License-Identifier: BSD-2-Clause
# patchattest.sieve - file patch mail by the verdict patchattest-milter
# put on it (Dovecot Pigeonhole, or any Sieve with these extensions).
#
#   pass        filed into "patches.attested"
#   fail        flagged (\Flagged) and filed into "patches.FAILED"
#   none; dkim= nobody's signature, but the author's domain vouches (a
#               DKIM signature of it that the MTA's verifier passed):
#               filed into "patches.domain"
#   unsigned-by-signer
#               (a habitual signer's patch arriving unsigned) flagged and
#               filed into "patches.unsigned-by-signer"
#   the rest    (none, nokey, untrusted, uidmismatch, stale, temperror,
#               and mail without the header) left to the rules after
#               this script, or to the inbox
#
# Use it as a user's script, or include it at the top of one:
#     require "include";
#     include :personal "patchattest";
#
# Only the topmost X-Patch-Attested header counts ("header :index 1",
# RFC 5260): the milter puts its own above every other header, Received
# included, and deletes the copies that arrived with the mail.  A copy
# further down can only be a sender's forgery (mail that reached the
# mailbox around the milter); it must not decide.
#
# With Dovecot's Maildir++ layout (the default "." separator) the folders
# are .patches.attested/ and .patches.FAILED/ on disk, the ones the
# procmail recipe in contrib/procmail fills.  With a "/" separator write
# "patches/attested" and "patches/FAILED".  ":create" (RFC 5490) makes a
# folder on first use; Dovecot does not subscribe it, so tell the mail
# client to show it.

require ["fileinto", "mailbox", "imap4flags", "index"];

# The value starts with the verdict, then ";" and the details; match the
# word alone too, so a bare "pass" is not missed.
if header :index 1 :matches "X-Patch-Attested" ["pass", "pass;*"] {
	fileinto :create "patches.attested";
	stop;
}

if header :index 1 :matches "X-Patch-Attested" ["fail", "fail;*"] {
	fileinto :create :flags "\\Flagged" "patches.FAILED";
	stop;
}

# dkim= comes right after the result (and scheme=); further on, a
# reason's text could hold the word.
if header :index 1 :matches "X-Patch-Attested" ["none; dkim=*",
    "none; scheme=patatt; dkim=*", "none; scheme=v0.1; dkim=*"] {
	fileinto :create "patches.domain";
	stop;
}

if header :index 1 :matches "X-Patch-Attested"
    ["unsigned-by-signer", "unsigned-by-signer;*"] {
	fileinto :create :flags "\\Flagged" "patches.unsigned-by-signer";
	stop;
}
