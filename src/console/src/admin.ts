import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from './api';

/** The signed-in administrator, handed to every screen by the app. */
export interface Admin {
  me: Me;
  /** Whether the signed-in administrator holds a permission: what they may not do is not offered. */
  can: (permission: string) => boolean;
}

export const AdminContext = createContext<Admin | null>(null);

export const useAdmin = (): Admin => useContext(AdminContext)!;
