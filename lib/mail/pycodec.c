/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pycodec - Python's codec registry and its decoders with
 * errors='replace', producing UTF-8.
 *
 * The codec registry below mirrors what CPython 3.11 finds for a label:
 * codecs.lookup() lower-cases the label and turns every run of bytes
 * other than ASCII letters, digits and "." into one "_" (dropping it at
 * either end); encodings.search_function() then tries the alias table,
 * also with "." read as "_", and else the normalised name as a module of
 * the encodings package.  A module name containing "." is never imported.
 *
 * How exact the decoders are (checked by feeding CPython and this code
 * the same bytes): utf-8, ascii, latin-1, utf-16, utf-32 and every
 * one-byte codec agree on any input.  Of the multibyte ones, gb2312, gbk,
 * shift_jis, cp932 and cp949 agree on any input; euc_jp, euc_kr, johab
 * and iso2022_jp/_kr on valid text.  big5, cp950, big5hkscs, gb18030,
 * the JIS X 0213 codecs and iso2022_jp_2/_3 use glibc's tables, which
 * differ from Python's in a few hundred characters.
 */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <string.h>

#include "patchattest.h"
#include "pycodec.h"
#include "base.h"

enum codec_kind {
	CODEC_UTF8,
	CODEC_UTF8_SIG,
	CODEC_ASCII,
	CODEC_LATIN1,
	CODEC_UTF16,		/* byte order from a BOM, else little */
	CODEC_UTF16_LE,
	CODEC_UTF16_BE,
	CODEC_UTF32,
	CODEC_UTF32_LE,
	CODEC_UTF32_BE,
	CODEC_BYTE,		/* one byte, one character: table via iconv */
	CODEC_MULTI,		/* multibyte, ASCII-based: iconv per character */
	CODEC_SHIFT,		/* stateful (ISO-2022): a stream through iconv */
	CODEC_NONE		/* known to Python, not implemented here */
};

/*
 * Bytes lo..hi where glibc's table differs from Python's: byte b is
 * ucs + (b - lo).  For a multibyte charset, a byte starting a character.
 */
struct codec_fix {
	unsigned char	lo;
	unsigned char	hi;	/* 0 ends a list */
	uint16_t	ucs;	/* code point of lo; 0xfffe: undefined */
};

struct codec {
	const char		*name;		/* module in encodings */
	enum codec_kind		 kind;
	const char		*iconv;		/* for CODEC_BYTE and the multibytes */
	const struct codec_fix	*fix;
	const char		*aliases;	/* encodings.aliases, by space */
};

struct byte_map {
	unsigned char	len;
	char		utf8[4];
};

#define UCS_UNDEF	0xfffe
#define LABEL_MAX	64

static size_t	utf8_put(char *, uint32_t);
static int	label_normalize(char *, size_t, const char *);
static int	word_in(const char *, const char *);
static const struct codec *codec_find(const char *);
static int	decode_ascii(struct sbuf *, const unsigned char *, size_t);
static int	decode_latin1(struct sbuf *, const unsigned char *, size_t);
static uint32_t	unit16(const unsigned char *, int);
static int	decode_utf16(struct sbuf *, const unsigned char *, size_t, int);
static int	decode_utf32(struct sbuf *, const unsigned char *, size_t, int);
static int	decode_byte(struct sbuf *, const struct codec *,
		    const unsigned char *, size_t);
static int	decode_multi(struct sbuf *, const struct codec *,
		    const unsigned char *, size_t);
static int	decode_shift(struct sbuf *, const struct codec *,
		    const unsigned char *, size_t);
static int	out_room(struct sbuf *, size_t);
static const struct codec_fix *fix_find(const struct codec_fix *, int);

static const struct codec_fix fix_cp1026[] = {
	{ 0x9d, 0x9d, 0x00b8 }, { 0xbc, 0xbc, 0x00af }, { 0, 0, 0 }
};
static const struct codec_fix fix_cp273[] = {
	{ 0xbc, 0xbc, 0x203e }, { 0, 0, 0 }
};
static const struct codec_fix fix_cp424[] = {
	{ 0x78, 0x78, 0x2017 }, { 0x8f, 0x8f, 0x00b1 }, { 0, 0, 0 }
};
static const struct codec_fix fix_cp856[] = {
	{ 0x1a, 0x1a, 0x001a }, { 0x1c, 0x1c, 0x001c }, { 0x7f, 0x7f, 0x007f },
	{ 0xee, 0xee, 0x00af }, { 0xfa, 0xfa, 0x00b7 }, { 0, 0, 0 }
};
static const struct codec_fix fix_cp875[] = {
	{ 0x6a, 0x6a, 0x007c }, { 0x74, 0x74, 0x00a0 }, { 0xdc, 0xdc, 0x001a },
	{ 0xdd, 0xdd, 0x0387 }, { 0xe1, 0xe1, 0x001a }, { 0xec, 0xec, 0x001a },
	{ 0xed, 0xed, 0x001a }, { 0xfc, 0xfc, 0x001a }, { 0xfd, 0xfd, 0x001a },
	{ 0, 0, 0 }
};
static const struct codec_fix fix_mac_cyrillic[] = {
	{ 0xff, 0xff, 0x20ac }, { 0, 0, 0 }
};
static const struct codec_fix fix_mac_iceland[] = {
	{ 0xa0, 0xa0, 0x00dd }, { 0xc6, 0xc6, 0x2206 }, { 0xd0, 0xd0, 0x2013 },
	{ 0xd1, 0xd1, 0x2014 }, { 0xd7, 0xd7, 0x25ca }, { 0xdb, 0xdb, 0x20ac },
	{ 0xdc, 0xdc, 0x00d0 }, { 0xdd, 0xdd, 0x00f0 }, { 0xe0, 0xe0, 0x00fd },
	{ 0xf0, 0xf0, 0xf8ff }, { 0xf6, 0xf6, 0x02c6 }, { 0xf7, 0xf7, 0x02dc },
	{ 0, 0, 0 }
};
static const struct codec_fix fix_mac_roman[] = {
	{ 0xc6, 0xc6, 0x2206 }, { 0xf0, 0xf0, 0xf8ff }, { 0, 0, 0 }
};
static const struct codec_fix fix_tis_620[] = {
	{ 0x80, 0x9f, 0x0080 }, { 0, 0, 0 }
};
/* glibc passes C1 controls or a euro sign where Python has no lead byte */
static const struct codec_fix fix_gbk[] = {
	{ 0x80, 0x80, UCS_UNDEF }, { 0, 0, 0 }
};
static const struct codec_fix fix_big5[] = {
	{ 0x80, 0x80, UCS_UNDEF }, { 0xc8, 0xc8, UCS_UNDEF }, { 0, 0, 0 }
};
static const struct codec_fix fix_euc_jp[] = {
	{ 0x80, 0x8d, UCS_UNDEF }, { 0x90, 0x9f, UCS_UNDEF }, { 0, 0, 0 }
};
static const struct codec_fix fix_euc_kr[] = {
	{ 0x80, 0x9f, UCS_UNDEF }, { 0, 0, 0 }
};
/* JIS X 0201 Roman: Python reads these two bytes as yen and overline */
static const struct codec_fix fix_jisx0213[] = {
	{ 0x5c, 0x5c, 0x00a5 }, { 0x7e, 0x7e, 0x203e }, { 0, 0, 0 }
};
static const struct codec_fix fix_cp932[] = {
	{ 0x80, 0x80, 0x0080 }, { 0xa0, 0xa0, 0xf8f0 }, { 0xfd, 0xfd, 0xf8f1 },
	{ 0xfe, 0xfe, 0xf8f2 }, { 0xff, 0xff, 0xf8f3 }, { 0, 0, 0 }
};

/*
 * Every text encoding of CPython 3.11 on a Unix system, with its aliases
 * as encodings.aliases lists them (less "csHPRoman8", which lookup never
 * reaches because labels are lower-cased first).  The byte codecs were
 * checked against Python table by table: glibc agrees on every byte but
 * the listed fixes.
 */
/* utf_8 and ascii must stay first: codec_find() takes them by position. */
static const struct codec codecs[] = {
	{ "utf_8", CODEC_UTF8, NULL, NULL,
	    "cp65001 u8 utf utf8 utf8_ucs2 utf8_ucs4" },
	{ "ascii", CODEC_ASCII, NULL, NULL,
	    "646 ansi_x3.4_1968 ansi_x3.4_1986 ansi_x3_4_1968 cp367 csascii "
	    "ibm367 iso646_us iso_646.irv_1991 iso_ir_6 us us_ascii" },
	{ "latin_1", CODEC_LATIN1, NULL, NULL,
	    "8859 cp819 csisolatin1 ibm819 iso8859 iso8859_1 iso_8859_1 "
	    "iso_8859_1_1987 iso_ir_100 l1 latin latin1" },
	/* charmap_decode() without a map is Latin-1 */
	{ "charmap", CODEC_LATIN1, NULL, NULL, "" },
	{ "utf_8_sig", CODEC_UTF8_SIG, NULL, NULL, "" },
	{ "utf_16", CODEC_UTF16, NULL, NULL, "u16 utf16" },
	{ "utf_16_le", CODEC_UTF16_LE, NULL, NULL,
	    "unicodelittleunmarked utf_16le" },
	{ "utf_16_be", CODEC_UTF16_BE, NULL, NULL,
	    "unicodebigunmarked utf_16be" },
	{ "utf_32", CODEC_UTF32, NULL, NULL, "u32 utf32" },
	{ "utf_32_le", CODEC_UTF32_LE, NULL, NULL, "utf_32le" },
	{ "utf_32_be", CODEC_UTF32_BE, NULL, NULL, "utf_32be" },

	{ "iso8859_2", CODEC_BYTE, "ISO-8859-2", NULL,
	    "csisolatin2 iso_8859_2 iso_8859_2_1987 iso_ir_101 l2 latin2" },
	{ "iso8859_3", CODEC_BYTE, "ISO-8859-3", NULL,
	    "csisolatin3 iso_8859_3 iso_8859_3_1988 iso_ir_109 l3 latin3" },
	{ "iso8859_4", CODEC_BYTE, "ISO-8859-4", NULL,
	    "csisolatin4 iso_8859_4 iso_8859_4_1988 iso_ir_110 l4 latin4" },
	{ "iso8859_5", CODEC_BYTE, "ISO-8859-5", NULL,
	    "csisolatincyrillic cyrillic iso_8859_5 iso_8859_5_1988 "
	    "iso_ir_144" },
	{ "iso8859_6", CODEC_BYTE, "ISO-8859-6", NULL,
	    "arabic asmo_708 csisolatinarabic ecma_114 iso_8859_6 "
	    "iso_8859_6_1987 iso_ir_127" },
	{ "iso8859_7", CODEC_BYTE, "ISO-8859-7", NULL,
	    "csisolatingreek ecma_118 elot_928 greek greek8 iso_8859_7 "
	    "iso_8859_7_1987 iso_ir_126" },
	{ "iso8859_8", CODEC_BYTE, "ISO-8859-8", NULL,
	    "csisolatinhebrew hebrew iso_8859_8 iso_8859_8_1988 iso_ir_138" },
	{ "iso8859_9", CODEC_BYTE, "ISO-8859-9", NULL,
	    "csisolatin5 iso_8859_9 iso_8859_9_1989 iso_ir_148 l5 latin5" },
	{ "iso8859_10", CODEC_BYTE, "ISO-8859-10", NULL,
	    "csisolatin6 iso_8859_10 iso_8859_10_1992 iso_ir_157 l6 latin6" },
	{ "iso8859_11", CODEC_BYTE, "ISO-8859-11", NULL,
	    "iso_8859_11 iso_8859_11_2001 thai" },
	{ "iso8859_13", CODEC_BYTE, "ISO-8859-13", NULL,
	    "iso_8859_13 l7 latin7" },
	{ "iso8859_14", CODEC_BYTE, "ISO-8859-14", NULL,
	    "iso_8859_14 iso_8859_14_1998 iso_celtic iso_ir_199 l8 latin8" },
	{ "iso8859_15", CODEC_BYTE, "ISO-8859-15", NULL,
	    "iso_8859_15 l9 latin9" },
	{ "iso8859_16", CODEC_BYTE, "ISO-8859-16", NULL,
	    "iso_8859_16 iso_8859_16_2001 iso_ir_226 l10 latin10" },
	{ "cp1250", CODEC_BYTE, "CP1250", NULL, "1250 windows_1250" },
	{ "cp1251", CODEC_BYTE, "CP1251", NULL, "1251 windows_1251" },
	{ "cp1252", CODEC_BYTE, "CP1252", NULL, "1252 windows_1252" },
	{ "cp1253", CODEC_BYTE, "CP1253", NULL, "1253 windows_1253" },
	{ "cp1254", CODEC_BYTE, "CP1254", NULL, "1254 windows_1254" },
	{ "cp1255", CODEC_BYTE, "CP1255", NULL, "1255 windows_1255" },
	{ "cp1256", CODEC_BYTE, "CP1256", NULL, "1256 windows_1256" },
	{ "cp1257", CODEC_BYTE, "CP1257", NULL, "1257 windows_1257" },
	{ "cp1258", CODEC_BYTE, "CP1258", NULL, "1258 windows_1258" },
	{ "koi8_r", CODEC_BYTE, "KOI8-R", NULL, "cskoi8r" },
	{ "koi8_u", CODEC_BYTE, "KOI8-U", NULL, "" },
	{ "koi8_t", CODEC_BYTE, "KOI8-T", NULL, "" },
	{ "kz1048", CODEC_BYTE, "RK1048", NULL,
	    "kz_1048 rk1048 strk1048_2002" },
	{ "ptcp154", CODEC_BYTE, "PT154", NULL,
	    "cp154 csptcp154 cyrillic_asian pt154" },
	{ "cp437", CODEC_BYTE, "CP437", NULL, "437 cspc8codepage437 ibm437" },
	{ "cp737", CODEC_BYTE, "CP737", NULL, "" },
	{ "cp775", CODEC_BYTE, "CP775", NULL, "775 cspc775baltic ibm775" },
	{ "cp850", CODEC_BYTE, "CP850", NULL,
	    "850 cspc850multilingual ibm850" },
	{ "cp852", CODEC_BYTE, "CP852", NULL, "852 cspcp852 ibm852" },
	{ "cp855", CODEC_BYTE, "CP855", NULL, "855 csibm855 ibm855" },
	{ "cp856", CODEC_BYTE, "CP856", fix_cp856, "" },
	{ "cp857", CODEC_BYTE, "CP857", NULL, "857 csibm857 ibm857" },
	{ "cp858", CODEC_BYTE, "CP858", NULL, "858 csibm858 ibm858" },
	{ "cp860", CODEC_BYTE, "CP860", NULL, "860 csibm860 ibm860" },
	{ "cp861", CODEC_BYTE, "CP861", NULL, "861 cp_is csibm861 ibm861" },
	{ "cp862", CODEC_BYTE, "CP862", NULL,
	    "862 cspc862latinhebrew ibm862" },
	{ "cp863", CODEC_BYTE, "CP863", NULL, "863 csibm863 ibm863" },
	{ "cp864", CODEC_BYTE, "CP864", NULL, "864 csibm864 ibm864" },
	{ "cp865", CODEC_BYTE, "CP865", NULL, "865 csibm865 ibm865" },
	{ "cp866", CODEC_BYTE, "CP866", NULL, "866 csibm866 ibm866" },
	{ "cp869", CODEC_BYTE, "CP869", NULL, "869 cp_gr csibm869 ibm869" },
	{ "cp874", CODEC_BYTE, "CP874", NULL, "" },
	{ "cp1125", CODEC_BYTE, "CP1125", NULL,
	    "1125 cp866u ibm1125 ruscii" },
	{ "cp037", CODEC_BYTE, "CP037", NULL,
	    "037 csibm037 ebcdic_cp_ca ebcdic_cp_nl ebcdic_cp_us "
	    "ebcdic_cp_wt ibm037 ibm039" },
	{ "cp273", CODEC_BYTE, "CP273", fix_cp273, "273 csibm273 ibm273" },
	{ "cp424", CODEC_BYTE, "CP424", fix_cp424,
	    "424 csibm424 ebcdic_cp_he ibm424" },
	{ "cp500", CODEC_BYTE, "CP500", NULL,
	    "500 csibm500 ebcdic_cp_be ebcdic_cp_ch ibm500" },
	{ "cp875", CODEC_BYTE, "CP875", fix_cp875, "" },
	{ "cp1026", CODEC_BYTE, "CP1026", fix_cp1026,
	    "1026 csibm1026 ibm1026" },
	{ "cp1140", CODEC_BYTE, "CP1140", NULL, "1140 ibm1140" },
	{ "hp_roman8", CODEC_BYTE, "HP-ROMAN8", NULL,
	    "cp1051 ibm1051 r8 roman8" },
	{ "mac_roman", CODEC_BYTE, "MACINTOSH", fix_mac_roman,
	    "macintosh macroman" },
	{ "mac_latin2", CODEC_BYTE, "MAC-CENTRALEUROPE", NULL,
	    "mac_centeuro maccentraleurope maclatin2" },
	{ "mac_cyrillic", CODEC_BYTE, "MAC-CYRILLIC", fix_mac_cyrillic,
	    "maccyrillic" },
	{ "mac_iceland", CODEC_BYTE, "MAC-IS", fix_mac_iceland, "maciceland" },
	{ "tis_620", CODEC_BYTE, "TIS-620", fix_tis_620,
	    "iso_ir_166 tis620 tis_620_0 tis_620_2529_0 tis_620_2529_1" },

	{ "gb2312", CODEC_MULTI, "EUC-CN", NULL,
	    "chinese csiso58gb231280 euc_cn euccn eucgb2312_cn gb2312_1980 "
	    "gb2312_80 iso_ir_58 x_mac_simp_chinese" },
	{ "gbk", CODEC_MULTI, "GBK", fix_gbk, "936 cp936 ms936" },
	{ "gb18030", CODEC_MULTI, "GB18030", NULL, "gb18030_2000" },
	{ "big5", CODEC_MULTI, "BIG5", fix_big5,
	    "big5_tw csbig5 x_mac_trad_chinese" },
	{ "big5hkscs", CODEC_MULTI, "BIG5-HKSCS", fix_gbk, "big5_hkscs hkscs" },
	{ "cp950", CODEC_MULTI, "CP950", fix_big5, "950 ms950" },
	{ "shift_jis", CODEC_MULTI, "SHIFT_JIS", NULL,
	    "csshiftjis s_jis shiftjis sjis x_mac_japanese" },
	{ "cp932", CODEC_MULTI, "CP932", fix_cp932, "932 ms932 ms_kanji mskanji" },
	{ "shift_jis_2004", CODEC_MULTI, "SHIFT_JISX0213", fix_jisx0213,
	    "s_jis_2004 shiftjis2004 sjis_2004" },
	{ "shift_jisx0213", CODEC_MULTI, "SHIFT_JISX0213", fix_jisx0213,
	    "s_jisx0213 shiftjisx0213 sjisx0213" },
	{ "euc_jp", CODEC_MULTI, "EUC-JP", fix_euc_jp, "eucjp u_jis ujis" },
	{ "euc_jis_2004", CODEC_MULTI, "EUC-JISX0213", NULL,
	    "euc_jis2004 eucjis2004 jisx0213" },
	{ "euc_jisx0213", CODEC_MULTI, "EUC-JISX0213", NULL, "eucjisx0213" },
	{ "euc_kr", CODEC_MULTI, "EUC-KR", fix_euc_kr,
	    "euckr korean ks_c_5601 ks_c_5601_1987 ks_x_1001 ksc5601 "
	    "ksx1001 x_mac_korean" },
	{ "cp949", CODEC_MULTI, "CP949", NULL, "949 ms949 uhc" },
	{ "johab", CODEC_MULTI, "JOHAB", NULL, "cp1361 ms1361" },
	{ "iso2022_jp", CODEC_SHIFT, "ISO-2022-JP", NULL,
	    "csiso2022jp iso2022jp iso_2022_jp" },
	{ "iso2022_jp_2", CODEC_SHIFT, "ISO-2022-JP-2", NULL,
	    "iso2022jp_2 iso_2022_jp_2" },
	{ "iso2022_jp_3", CODEC_SHIFT, "ISO-2022-JP-3", NULL,
	    "iso2022jp_3 iso_2022_jp_3" },
	{ "iso2022_kr", CODEC_SHIFT, "ISO-2022-KR", NULL,
	    "csiso2022kr iso2022kr iso_2022_kr" },

	/*
	 * Known to Python, not done here: no glibc converter with the same
	 * table, or (idna, undefined) Python raises even with "replace".
	 */
	{ "iso2022_jp_1", CODEC_NONE, NULL, NULL,
	    "iso2022jp_1 iso_2022_jp_1" },
	{ "iso2022_jp_2004", CODEC_NONE, NULL, NULL,
	    "iso2022jp_2004 iso_2022_jp_2004" },
	{ "iso2022_jp_ext", CODEC_NONE, NULL, NULL,
	    "iso2022jp_ext iso_2022_jp_ext" },
	{ "hz", CODEC_NONE, NULL, NULL, "hz_gb hz_gb_2312 hzgb" },
	{ "cp720", CODEC_NONE, NULL, NULL, "" },
	{ "cp1006", CODEC_NONE, NULL, NULL, "" },
	{ "mac_arabic", CODEC_NONE, NULL, NULL, "" },
	{ "mac_croatian", CODEC_NONE, NULL, NULL, "" },
	{ "mac_farsi", CODEC_NONE, NULL, NULL, "" },
	{ "mac_greek", CODEC_NONE, NULL, NULL, "macgreek" },
	{ "mac_romanian", CODEC_NONE, NULL, NULL, "" },
	{ "mac_turkish", CODEC_NONE, NULL, NULL, "macturkish" },
	{ "palmos", CODEC_NONE, NULL, NULL, "" },
	{ "utf_7", CODEC_NONE, NULL, NULL, "u7 unicode_1_1_utf_7 utf7" },
	{ "unicode_escape", CODEC_NONE, NULL, NULL, "" },
	{ "raw_unicode_escape", CODEC_NONE, NULL, NULL, "" },
	{ "punycode", CODEC_NONE, NULL, NULL, "" },
	{ "idna", CODEC_NONE, NULL, NULL, "" },
	{ "undefined", CODEC_NONE, NULL, NULL, "" },
};

/* utf8_put - encode ucs (below U+110000) at dst; returns the length */
static size_t
utf8_put(char *dst, uint32_t ucs)
{
	unsigned char *d = (unsigned char *)dst;

	if (ucs < 0x80) {
		d[0] = (unsigned char)ucs;
		return 1;
	}
	if (ucs < 0x800) {
		d[0] = (unsigned char)(0xc0 | ucs >> 6);
		d[1] = (unsigned char)(0x80 | (ucs & 0x3f));
		return 2;
	}
	if (ucs < 0x10000) {
		d[0] = (unsigned char)(0xe0 | ucs >> 12);
		d[1] = (unsigned char)(0x80 | (ucs >> 6 & 0x3f));
		d[2] = (unsigned char)(0x80 | (ucs & 0x3f));
		return 3;
	}
	d[0] = (unsigned char)(0xf0 | ucs >> 18);
	d[1] = (unsigned char)(0x80 | (ucs >> 12 & 0x3f));
	d[2] = (unsigned char)(0x80 | (ucs >> 6 & 0x3f));
	d[3] = (unsigned char)(0x80 | (ucs & 0x3f));
	return 4;
}

/*
 * label_normalize - CPython's _Py_normalize_encoding() on the label's
 * bytes: ASCII letters (lower-cased), digits and "." are kept, every run
 * of anything else becomes one "_", none at the start or the end.
 * Returns -1 when the result does not fit (no codec name is that long).
 */
static int
label_normalize(char *dst, size_t size, const char *label)
{
	const unsigned char *p = (const unsigned char *)label;
	size_t n = 0;
	int punct = 0;

	for (; *p; p++) {
		int c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.')) {
			punct = 1;
			continue;
		}
		if (n + 2 >= size)
			return -1;
		if (punct && n > 0)
			dst[n++] = '_';
		punct = 0;
		dst[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	dst[n] = '\0';
	return 0;
}

/* word_in - 1 iff word is one of the space-separated words of list */
static int
word_in(const char *word, const char *list)
{
	size_t n = strlen(word);
	const char *p = list;

	while (*p) {
		const char *e = strchr(p, ' ');
		size_t wl = e ? (size_t)(e - p) : strlen(p);

		if (wl == n && memcmp(p, word, n) == 0)
			return 1;
		if (e == NULL)
			break;
		p = e + 1;
	}
	return 0;
}

/* codec_find - the codec Python's registry returns for label, or NULL */
static const struct codec *
codec_find(const char *label)
{
	char norm[LABEL_MAX], undot[LABEL_MAX];
	size_t i;
	char *d;

	/* The labels of nearly all mail: rows 0 and 1 of the table. */
	if (strcmp(label, "utf-8") == 0)
		return &codecs[0];
	if (strcmp(label, "us-ascii") == 0)
		return &codecs[1];
	if (label_normalize(norm, sizeof(norm), label) == -1 || !norm[0])
		return NULL;
	memcpy(undot, norm, strlen(norm) + 1);
	for (d = undot; (d = strchr(d, '.')) != NULL; d++)
		*d = '_';
	/* aliases first, as search_function does */
	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (word_in(norm, codecs[i].aliases) ||
		    word_in(undot, codecs[i].aliases))
			return &codecs[i];
	/* then the module itself; its name never contains a "." */
	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (strcmp(norm, codecs[i].name) == 0)
			return &codecs[i];
	return NULL;
}

int
pycodec_known(const char *label)
{
	return codec_find(label) != NULL;
}

int
pycodec_decode(struct sbuf *out, const char *label, const char *s,
    size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const struct codec *c;

	/* Python decodes b"" to "" without looking the label up */
	if (len == 0)
		return sbuf_failed(out);
	if ((c = codec_find(label)) == NULL)
		return PA_ECHARSET;
	switch (c->kind) {
	case CODEC_UTF8:
		return pytext_utf8_replace(out, s, len);
	case CODEC_UTF8_SIG:
		if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
			return pytext_utf8_replace(out, s + 3, len - 3);
		return pytext_utf8_replace(out, s, len);
	case CODEC_ASCII:
		return decode_ascii(out, p, len);
	case CODEC_LATIN1:
		return decode_latin1(out, p, len);
	case CODEC_UTF16:
		return decode_utf16(out, p, len, 0);
	case CODEC_UTF16_LE:
		return decode_utf16(out, p, len, -1);
	case CODEC_UTF16_BE:
		return decode_utf16(out, p, len, 1);
	case CODEC_UTF32:
		return decode_utf32(out, p, len, 0);
	case CODEC_UTF32_LE:
		return decode_utf32(out, p, len, -1);
	case CODEC_UTF32_BE:
		return decode_utf32(out, p, len, 1);
	case CODEC_BYTE:
		return decode_byte(out, c, p, len);
	case CODEC_MULTI:
		return decode_multi(out, c, p, len);
	case CODEC_SHIFT:
		return decode_shift(out, c, p, len);
	case CODEC_NONE:
		break;
	}
	return PA_ERROR;
}

/* decode_ascii - every byte above 0x7F is one U+FFFD */
static int
decode_ascii(struct sbuf *out, const unsigned char *p, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = pytext_ascii_prefix(p + i, len - i);
		sbuf_add(out, p + i, n);
		for (i += n; i < len && p[i] >= 0x80; i++)
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
	}
	return sbuf_failed(out);
}

/* decode_latin1 - byte b is code point U+00bb */
static int
decode_latin1(struct sbuf *out, const unsigned char *p, size_t len)
{
	size_t i, high = 0;
	char *d;

	for (i = 0; i < len; i++)
		high += p[i] >> 7;
	if (sbuf_grow(out, len + high) != 0)
		return sbuf_failed(out);
	d = out->buf + out->len;
	for (i = 0; i < len; i++)
		d += utf8_put(d, p[i]);
	out->len = (size_t)(d - out->buf);
	out->buf[out->len] = '\0';
	return 0;
}

/* unit16 - the UTF-16 code unit at q; order < 0: little-endian */
static uint32_t
unit16(const unsigned char *q, int order)
{
	return order < 0 ? (uint32_t)(q[0] | q[1] << 8) :
	    (uint32_t)(q[0] << 8 | q[1]);
}

/*
 * decode_utf16 - Python's UTF-16 decoder with errors='replace'.  order:
 * -1 little, 1 big, 0 from a BOM (which is dropped), else little-endian
 * (Python takes the host's order; the reference runs on x86).  A lone
 * surrogate is one U+FFFD per unit; a high surrogate with less than a
 * unit after it, or an odd last byte, is one U+FFFD for the rest.
 */
static int
decode_utf16(struct sbuf *out, const unsigned char *p, size_t len, int order)
{
	char tmp[4];
	size_t i = 0;
	uint32_t u, u2;

	if (order == 0) {
		order = -1;
		if (len >= 2 && p[0] == 0xff && p[1] == 0xfe)
			i = 2;
		else if (len >= 2 && p[0] == 0xfe && p[1] == 0xff) {
			i = 2;
			order = 1;
		}
	}
	while (len - i >= 2) {
		u = unit16(p + i, order);
		i += 2;
		if (u < 0xd800 || u > 0xdfff) {
			sbuf_add(out, tmp, utf8_put(tmp, u));
			continue;
		}
		if (u >= 0xdc00) {
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			continue;
		}
		if (len - i < 2) {
			i = len;
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			break;
		}
		u2 = unit16(p + i, order);
		if (u2 < 0xdc00 || u2 > 0xdfff) {
			/* the second unit is read again on its own */
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			continue;
		}
		i += 2;
		u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
		sbuf_add(out, tmp, utf8_put(tmp, u));
	}
	if (i < len)
		sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
	return sbuf_failed(out);
}

/*
 * decode_utf32 - Python's UTF-32 decoder with errors='replace'; order as
 * for decode_utf16.  A unit above U+10FFFF or in the surrogates is one
 * U+FFFD; 1-3 bytes left over at the end are one U+FFFD.
 */
static int
decode_utf32(struct sbuf *out, const unsigned char *p, size_t len, int order)
{
	char tmp[4];
	size_t i = 0;
	uint32_t u;

	if (order == 0) {
		order = -1;
		if (len >= 4 && memcmp(p, "\xff\xfe\0\0", 4) == 0)
			i = 4;
		else if (len >= 4 && memcmp(p, "\0\0\xfe\xff", 4) == 0) {
			i = 4;
			order = 1;
		}
	}
	for (; len - i >= 4; i += 4) {
		if (order < 0)
			u = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
			    (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
		else
			u = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 |
			    (uint32_t)p[i + 2] << 8 | (uint32_t)p[i + 3];
		if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
		else
			sbuf_add(out, tmp, utf8_put(tmp, u));
	}
	if (i < len)
		sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
	return sbuf_failed(out);
}

/*
 * decode_byte - a one-byte charset.  The table is built by converting
 * each byte on its own, which also keeps glibc's CP1255/CP1258 from
 * composing a letter with the accent after it (Python does not).
 */
static int
decode_byte(struct sbuf *out, const struct codec *c, const unsigned char *p,
    size_t len)
{
	struct byte_map map[256];
	const struct codec_fix *f;
	iconv_t cd;
	size_t i, il, ol, r, need;
	char in[1], buf[16], *ip, *op;
	int b, valid;

	if ((cd = iconv_open("UTF-8", c->iconv)) == (iconv_t)-1)
		return errno == ENOMEM ? PA_ENOMEM : PA_ERROR;
	for (b = 0; b < 256; b++) {
		in[0] = (char)b;
		ip = in;
		il = 1;
		op = buf;
		ol = sizeof(buf);
		iconv(cd, NULL, NULL, NULL, NULL);
		r = iconv(cd, &ip, &il, &op, &ol);
		if (r != (size_t)-1)
			r = iconv(cd, NULL, NULL, &op, &ol);
		map[b].len = 0;
		/* exactly one character, else the byte is undefined */
		if (r != (size_t)-1 && op > buf &&
		    pytext_utf8_char((unsigned char *)buf, (size_t)(op - buf),
		    &valid) == (size_t)(op - buf) && valid) {
			map[b].len = (unsigned char)(op - buf);
			memcpy(map[b].utf8, buf, map[b].len);
		}
	}
	iconv_close(cd);
	for (f = c->fix; f && f->hi; f++)
		for (b = f->lo; b <= f->hi; b++)
			map[b].len = f->ucs == UCS_UNDEF ? 0 : (unsigned char)
			    utf8_put(map[b].utf8, f->ucs + (uint32_t)(b - f->lo));
	for (b = 0; b < 256; b++)
		if (map[b].len == 0) {
			map[b].len = PYTEXT_REPL_LEN;
			memcpy(map[b].utf8, PYTEXT_REPL, PYTEXT_REPL_LEN);
		}

	/* exact size first, so that a cap is hit only by real output */
	for (i = 0, need = 0; i < len; i++)
		need += map[p[i]].len;
	if (sbuf_grow(out, need) != 0)
		return sbuf_failed(out);
	op = out->buf + out->len;
	for (i = 0; i < len; i++) {
		memcpy(op, map[p[i]].utf8, map[p[i]].len);
		op += map[p[i]].len;
	}
	out->len = (size_t)(op - out->buf);
	out->buf[out->len] = '\0';
	return 0;
}

/*
 * out_room - room for at least want more bytes in out, or less where the
 * cap allows less but still more than there is now; else the sbuf error.
 */
static int
out_room(struct sbuf *out, size_t want)
{
	size_t have, cap;

	if (sbuf_failed(out))
		return sbuf_failed(out);
	have = out->alloc ? out->alloc - out->len - 1 : 0;
	cap = out->max - out->len;
	if (want <= have)
		return 0;
	if (want > cap)
		want = have < cap ? cap : have + 1;
	return sbuf_grow(out, want);
}

/* fix_find - the fix for byte b, or NULL */
static const struct codec_fix *
fix_find(const struct codec_fix *f, int b)
{
	for (; f && f->hi; f++)
		if (b >= f->lo && b <= f->hi)
			return f;
	return NULL;
}

/*
 * decode_multi - an ASCII-based multibyte charset, one character at a
 * time as Python's CJK decoders go: a byte with a fix is what the fix
 * says, another byte below 0x80 is ASCII (glibc's SJIS and JOHAB would
 * make a backslash a yen or won sign), and otherwise the shortest run of
 * up to four bytes that iconv converts whole is one character.  A byte
 * that starts none is U+FFFD and decoding resumes after it; a character
 * cut short by the end is one U+FFFD.
 */
static int
decode_multi(struct sbuf *out, const struct codec *c, const unsigned char *p,
    size_t len)
{
	const struct codec_fix *f;
	iconv_t cd;
	char buf[64], *ip, *op;
	size_t i = 0, n, k, il, ol, r;
	int rc = 0, err;

	if ((cd = iconv_open("UTF-8", c->iconv)) == (iconv_t)-1)
		return errno == ENOMEM ? PA_ENOMEM : PA_ERROR;
	while (i < len && rc == 0) {
		if ((f = fix_find(c->fix, p[i])) == NULL && p[i] < 0x80) {
			rc = sbuf_addch(out, p[i++]);
			continue;
		}
		if (f != NULL) {
			n = utf8_put(buf, f->ucs + (uint32_t)(p[i] - f->lo));
			if (f->ucs == UCS_UNDEF)
				rc = sbuf_add(out, PYTEXT_REPL,
				    PYTEXT_REPL_LEN);
			else
				rc = sbuf_add(out, buf, n);
			i++;
			continue;
		}
		err = EILSEQ;
		for (k = 1; k <= 4 && k <= len - i; k++) {
			iconv(cd, NULL, NULL, NULL, NULL);
			ip = (char *)(uintptr_t)(p + i);
			il = k;
			op = buf;
			ol = sizeof(buf);
			r = iconv(cd, &ip, &il, &op, &ol);
			if (r != (size_t)-1)
				r = iconv(cd, NULL, NULL, &op, &ol);
			err = r == (size_t)-1 ? errno : 0;
			if (err != EINVAL)
				break;
		}
		if (err == 0) {
			rc = sbuf_add(out, buf, (size_t)(op - buf));
			i += k;
		} else if (err == EINVAL && k > len - i) {
			rc = sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			i = len;
		} else {
			rc = sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			i++;
		}
	}
	iconv_close(cd);
	return rc;
}

/*
 * decode_shift - a stateful multibyte charset through iconv.  A byte
 * iconv rejects becomes U+FFFD and decoding resumes after it; an
 * incomplete sequence at the end becomes one U+FFFD.
 */
static int
decode_shift(struct sbuf *out, const struct codec *c, const unsigned char *p,
    size_t len)
{
	iconv_t cd;
	char *ip = (char *)(uintptr_t)p, *op;
	size_t il = len, ol, r, want = len + 16;
	int rc = 0, cut = 0, flush = 0;

	if ((cd = iconv_open("UTF-8", c->iconv)) == (iconv_t)-1)
		return errno == ENOMEM ? PA_ENOMEM : PA_ERROR;
	/* convert, then flush what iconv holds back (with NULL input) */
	while (rc == 0) {
		if ((rc = out_room(out, want)) != 0)
			break;
		op = out->buf + out->len;
		ol = out->alloc - out->len - 1;
		if (!flush)
			r = iconv(cd, &ip, &il, &op, &ol);
		else
			r = iconv(cd, NULL, NULL, &op, &ol);
		out->len = (size_t)(op - out->buf);
		out->buf[out->len] = '\0';
		if (r != (size_t)-1) {
			if (flush)
				break;
			flush = 1;
		} else if (errno == E2BIG)
			want = 2 * (out->alloc - out->len) + 64;
		else if (errno == EILSEQ && !flush) {
			ip++;
			il--;
			rc = sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
		} else if (errno == EINVAL && !flush) {
			cut = 1;
			flush = 1;
		} else
			rc = PA_ERROR;
	}
	iconv_close(cd);
	if (rc == 0 && cut)
		rc = sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
	return rc;
}
