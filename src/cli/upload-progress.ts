// The progress line of a long upload, on a terminal only: how many reports are sent and how many bytes have gone.
import type { ClientContext } from "./io.ts";
import type { UploadProgress } from "./upload-client.ts";

/** Often enough to look alive, rarely enough not to flood a slow terminal. */
const MIN_INTERVAL_MS = 100;

export interface ProgressLine {
  update: (progress: UploadProgress) => void;
  /** Clears the line, so that what follows starts on a clean one. */
  done: () => void;
}

/** A progress line through `context.progress`, or undefined when there is no terminal to show it on. */
export function progressLine(context: ClientContext): ProgressLine | undefined {
  const show = context.progress;
  if (show === undefined) return undefined;
  let shownAt = -Infinity;
  return {
    update: (progress) => {
      const now = context.now();
      if (now - shownAt < MIN_INTERVAL_MS && progress.filesSent < progress.files) return;
      shownAt = now;
      show(describeProgress(progress));
    },
    done: () => show(""),
  };
}

export function describeProgress(progress: UploadProgress): string {
  const reports = `${progress.filesSent}/${progress.files} report${progress.files === 1 ? "" : "s"}`;
  return `uploading: ${reports} sent, ${formatBytes(progress.bytesSent)}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
