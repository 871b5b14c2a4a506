/**
 * Lists of the fields a reader accepts (a config file's keys, a construct's props) are written
 * next to the interface that declares them; this type ties the two, so a field added to the
 * interface and not to the list (or listed and not declared) fails the type check instead of
 * being refused as "unknown field" at run time.
 *
 *   export const LIST_FIELDS = ['resources', 'mode'] as const satisfies readonly (keyof ListProps)[];
 *   true satisfies NamesEveryField<ListProps, typeof LIST_FIELDS>;
 */
export type NamesEveryField<Shape, Listed extends readonly unknown[]> = [Exclude<keyof Shape, Listed[number]>] extends [never] ? true : false;
