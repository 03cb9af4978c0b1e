// Progress of a link on a terminal: one line on stderr, replaced as the link goes on (stage,
// images done of total, rate). Nothing when stderr is no terminal, under -v (the notes say
// more) or with --no-progress. It only prints; the driver tells it where the link is.
#include "tool/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  bool on;
  const char *stage;
  double stage_start, last_update;
  size_t done, total; // images, in the hooks stage
} Progress;
static Progress progress;

bool progress_wanted(bool no_progress) {
  const char *term = getenv("TERM");
  return !no_progress && !verbose && isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
}

static void show(bool force) {
  double now = now_seconds();
  if (!force && now - progress.last_update < 0.1) return; // at most ten updates a second
  progress.last_update = now;
  double elapsed = now - progress.stage_start;
  char line[160];
  if (progress.total)
    snprintf(line, sizeof line, "%s: %s: %zu/%zu images, %.1f images/s, %.1f s", TOOL_NAME,
             progress.stage, progress.done, progress.total,
             elapsed > 0 ? progress.done / elapsed : 0.0, elapsed);
  else
    snprintf(line, sizeof line, "%s: %s, %.1f s", TOOL_NAME, progress.stage, elapsed);
  status_line(line);
}

void progress_begin(bool on) {
  progress = (Progress){.on = on};
}

void progress_stage(const char *stage, size_t images) {
  if (!progress.on) return;
  progress.stage = stage;
  progress.stage_start = now_seconds();
  progress.done = 0;
  progress.total = images;
  show(true);
}

void progress_image_done(void) {
  if (!progress.on) return;
  progress.done++;
  show(progress.done == progress.total);
}

void progress_end(void) {
  if (progress.on) status_line(NULL);
  progress.on = false;
}
