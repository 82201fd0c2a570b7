// The live members of a process group, by command name (Linux: `ps`). Zombies are left out: they have exited and only
// wait to be reaped, and a process orphaned by its parent's exit is reaped by init, which may take a second or two.
import { execFileSync } from 'node:child_process';

export function liveGroupMembers(pgid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'stat=,comm=', '-g', String(pgid)])
      .toString()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([stat, comm]) => comm !== undefined && !stat!.startsWith('Z'))
      .map(([, comm]) => comm!);
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}
