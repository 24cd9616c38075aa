/**
 * The class list of a labelling session and the labels marks carry: one of the record's classes,
 * checked the same way wherever a label comes from (a tool call, the page, a notebook, Python).
 */
import { VisionError } from './errors';

/** Most classes a record's class list may name (COCO has 80). */
export const MAX_CLASSES = 100;

/** Longest class name (characters). */
export const MAX_CLASS_LENGTH = 60;

/**
 * Check a class list: 1 to {@link MAX_CLASSES} distinct, non-empty names without surrounding
 * spaces or control characters, each at most {@link MAX_CLASS_LENGTH} characters (they are shown
 * in a toolbar, written into COCO/YOLO/VOC files and read by the model).
 */
export function checkClasses(classes: readonly string[], where = 'classes'): readonly string[] {
  if (classes.length === 0 || classes.length > MAX_CLASSES) {
    throw new VisionError(
      'bad-label',
      `${where}: give 1 to ${MAX_CLASSES} classes, not ${classes.length}.`
    );
  }
  const seen = new Set<string>();
  classes.forEach((name, index) => {
    const bad = /[\u0000-\u001f\u007f]/.test(name);
    if (!name || name.trim() !== name || bad || name.length > MAX_CLASS_LENGTH) {
      throw new VisionError(
        'bad-label',
        `${where}[${index}]: ${JSON.stringify(name.slice(0, MAX_CLASS_LENGTH + 1))} is not a class name; use 1–${MAX_CLASS_LENGTH} characters, no control characters or surrounding spaces.`
      );
    }
    if (seen.has(name)) {
      throw new VisionError('bad-label', `${where}: class "${name}" is named twice.`);
    }
    seen.add(name);
  });
  return classes;
}

/** Check a label against the record's classes (none given: undefined). */
export function checkLabel(
  label: string | undefined,
  classes: readonly string[] | undefined,
  where: string
): string | undefined {
  if (label === undefined) {
    return undefined;
  }
  if (!classes) {
    throw new VisionError(
      'bad-label',
      `${where}: label "${label.slice(0, MAX_CLASS_LENGTH)}" given, but this picture has no class list; drop the label (use caption for free text).`
    );
  }
  if (!classes.includes(label)) {
    throw new VisionError(
      'bad-label',
      `${where}: label "${label.slice(0, MAX_CLASS_LENGTH)}" is not one of the classes: ${classes.join(', ')}.`
    );
  }
  return label;
}
