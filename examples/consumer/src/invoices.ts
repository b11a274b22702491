import { Injectable } from '@nestjs/common';

/**
 * The product's own data, kept in memory for the example: each organization's invoices, as the
 * organization's example in the auth service's docs (`docs/organizations.md`) names them.
 */
@Injectable()
export class Invoices {
  private readonly approvedBy = new Map<string, string>();

  list(orgId: string) {
    const items = ['inv-1', 'inv-2'].map((id) => ({ id, approved_by: this.approvedBy.get(`${orgId}/${id}`) ?? null }));
    return { success: true, data: { organization_id: orgId, items } };
  }

  approve(orgId: string, id: string, userId: string) {
    this.approvedBy.set(`${orgId}/${id}`, userId);
    return { success: true, data: { organization_id: orgId, id, approved_by: userId } };
  }
}
