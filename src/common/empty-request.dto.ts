/** `data` of an operation that takes no fields: any field in it is unknown (contract 1.1). */
export class EmptyRequest {}
