/* A small INI parser for Arm snapshot directories.
 *
 * Format: `[section]` lines, `key=value` lines (spaces around both are
 * trimmed), comments starting with ';' or '#', blank lines. Keys outside a
 * section belong to section "". Lookups ignore case. A line that is none of
 * these is an error with its line number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trawl/ete.h"
#include "trawl/file.h"

#include "ete/ini.h"

struct trawl_ini {
	char *text;                     /* private copy, split in place */
	struct trawl_ini_entry *e;
	size_t n, cap;
};

static char *trim(char *s, char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = 0;
	return s;
}

/* One pass over a private copy of the text, split in place: entries point
 * into it, so a parsed file costs one allocation for the text and one for
 * the entry array. Each line is classified by its first character after
 * trimming; the first line that is none of the forms ends the parse with
 * its line number. */
enum trawl_status trawl_ini_parse(struct trawl_ini **out, const char *text, size_t len,
				  const char *file, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	struct trawl_ini *ini = calloc(1, sizeof *ini);
	*out = NULL;
	if (!ini || !(ini->text = malloc(len + 1))) {
		free(ini);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	memcpy(ini->text, text, len);
	ini->text[len] = 0;
	const char *section = "";
	char *p = ini->text, *end = ini->text + len;
	uint32_t line = 0;
	while (p < end) {
		line++;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		char *s = trim(p, le);
		p = nl ? nl + 1 : end;
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			if (!close) {
				st = trawl_error_set(err, TRAWL_ERR_FORMAT, "section header without ']'");
				trawl_error_at(err, file, line, 1, 0);
				goto out;
			}
			section = trim(s + 1, close);
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			st = trawl_error_set(err, TRAWL_ERR_FORMAT, "expected key=value or [section]");
			trawl_error_at(err, file, line, 1, 0);
			goto out;
		}
		char *key = trim(s, eq);
		char *val = trim(eq + 1, eq + 1 + strlen(eq + 1));
		if (ini->n == ini->cap) {
			size_t nc = ini->cap ? ini->cap * 2 : 32;
			void *ne = realloc(ini->e, nc * sizeof *ini->e);
			if (!ne) {
				st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
				goto out;
			}
			ini->e = ne;
			ini->cap = nc;
		}
		ini->e[ini->n].section = section;
		ini->e[ini->n].key = key;
		ini->e[ini->n].value = val;
		ini->e[ini->n].line = line;
		ini->n++;
	}
out:
	if (st != TRAWL_OK) {
		trawl_ini_destroy(ini);
		return st;
	}
	*out = ini;
	return TRAWL_OK;
}

enum trawl_status trawl_ini_load(struct trawl_ini **out, const char *path, struct trawl_error *err)
{
	uint8_t *buf;
	size_t n;
	*out = NULL;
	enum trawl_status st = trawl_file_read(path, &buf, &n, err);
	if (st)
		return st;
	st = trawl_ini_parse(out, (const char *)buf, n, path, err);
	free(buf);
	return st;
}

const char *trawl_ini_get(const struct trawl_ini *ini, const char *section, const char *key)
{
	for (size_t i = 0; i < ini->n; i++)
		if (!strcasecmp(ini->e[i].section, section) && !strcasecmp(ini->e[i].key, key))
			return ini->e[i].value;
	return NULL;
}

size_t trawl_ini_count(const struct trawl_ini *ini)
{
	return ini->n;
}

const struct trawl_ini_entry *trawl_ini_at(const struct trawl_ini *ini, size_t i)
{
	return i < ini->n ? &ini->e[i] : NULL;
}

void trawl_ini_destroy(struct trawl_ini *ini)
{
	if (!ini)
		return;
	free(ini->e);
	free(ini->text);
	free(ini);
}

void trawl_ini_join(char *out, size_t size, const char *dir, const char *name)
{
	size_t dl = name[0] == '/' ? 0 : strlen(dir), nl = strlen(name);
	if (dl + 1 + nl + 1 > size) {
		out[0] = 0;
		return;
	}
	if (dl) {
		memcpy(out, dir, dl);
		out[dl++] = '/';
	}
	memcpy(out + dl, name, nl + 1);
}
